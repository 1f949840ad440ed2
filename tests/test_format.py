"""Tests for gradcli.engine.format: tensor text must match PyTorch's repr exactly.

PyTorch is used only as an oracle here. Tests that need it request the
``torch`` fixture and are skipped when it is not installed; the literal
examples at the top run everywhere.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcli.engine.format import format_tensor, get_printoptions, printoptions, set_printoptions

DEFAULT_OPTS = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="PyTorch is the oracle for tensor printing")


@pytest.fixture(autouse=True)
def _restore_print_options():
    """Leave gradcli's and (if loaded) torch's print options exactly as found."""
    ours = get_printoptions()
    torch_mod = sys.modules.get("torch")
    theirs = torch_mod._tensor_str.get_printoptions() if torch_mod is not None else None
    try:
        yield
    finally:
        set_printoptions(**ours)
        torch_mod = sys.modules.get("torch")
        if torch_mod is not None:
            if theirs is None:
                torch_mod.set_printoptions(profile="default", sci_mode=None)
            else:
                torch_mod.set_printoptions(**theirs)


def _suffix_for(torch, t):
    """The dtype text a caller passes: torch omits the default float dtype, int64 and bool."""
    if t.dtype in (torch.get_default_dtype(), torch.int64, torch.bool):
        return None
    return str(t.dtype)


def _ours(torch, t):
    grad_fn = t.grad_fn
    return format_tensor(
        t.detach().numpy(),
        dtype_suffix=_suffix_for(torch, t),
        requires_grad=t.requires_grad,
        grad_fn_name=None if grad_fn is None else type(grad_fn).__name__,
    )


def _check(torch, arr, grad=None):
    """Compare format_tensor with repr(torch tensor) for ``arr``.

    grad: None (plain tensor), "leaf" (requires_grad=True), or "add"/"mul"/"clone"
    (a non-leaf with AddBackward0 / MulBackward0 / CloneBackward0).
    """
    t = torch.tensor(arr)
    if grad is not None:
        t = t.detach().requires_grad_(True)
        if grad == "add":
            t = t + 0
        elif grad == "mul":
            t = t * 1
        elif grad == "clone":
            t = t.clone()
    expected = repr(t)
    got = _ours(torch, t)
    assert got == expected, f"\n--- ours ---\n{got}\n--- torch ---\n{expected}"
    assert str(t) == expected  # print(t) shows the same text


# --------------------------------------------------------------------------
# Literal examples (no torch needed)
# --------------------------------------------------------------------------

LITERAL_CASES = [
    (
        np.array([19.0], np.float32),
        {"grad_fn_name": "AddBackward0"},
        "tensor([19.], grad_fn=<AddBackward0>)",
    ),
    (np.array(6.0, np.float32), {}, "tensor(6.)"),
    (np.array([[4, 3], [2, 6]], np.float32), {}, "tensor([[4., 3.],\n        [2., 6.]])"),
    (np.array([1, 2], np.float32), {"requires_grad": True}, "tensor([1., 2.], requires_grad=True)"),
    (np.array([1, 2], np.int64), {}, "tensor([1, 2])"),
    (np.array([True, False]), {}, "tensor([ True, False])"),
    (
        np.array([1, 2], np.float64),
        {"dtype_suffix": "torch.float64"},
        "tensor([1., 2.], dtype=torch.float64)",
    ),
    (np.array([0.1], np.float32), {}, "tensor([0.1000])"),
    (np.array([], np.float32), {}, "tensor([])"),
    (np.zeros((0, 3), np.float32), {}, "tensor([], size=(0, 3))"),
    (np.array([], np.int64), {}, "tensor([], dtype=torch.int64)"),
    (np.array([-0.0, 1.0], np.float32), {}, "tensor([-0., 1.])"),
    (np.array([np.nan, 1.0, np.inf], np.float32), {}, "tensor([nan, 1., inf])"),
    (np.array([1e-5, 1.0], np.float32), {}, "tensor([1.0000e-05, 1.0000e+00])"),
    (
        np.array([1.5], np.float32),
        {"grad_fn_name": "MulBackward0", "requires_grad": True},
        "tensor([1.5000], grad_fn=<MulBackward0>)",
    ),
]


@pytest.mark.parametrize(("arr", "kwargs", "expected"), LITERAL_CASES)
def test_literal_examples(arr, kwargs, expected):
    assert format_tensor(arr, **kwargs) == expected


def test_summarised_literal():
    text = format_tensor(np.arange(2000, dtype=np.int64))
    assert text == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_import_does_not_load_torch():
    code = "import sys, gradcli.engine.format; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_set_printoptions_semantics():
    set_printoptions(precision=2, sci_mode=True)
    assert get_printoptions() == {**DEFAULT_OPTS, "precision": 2, "sci_mode": True}
    set_printoptions(linewidth=50)  # sci_mode is reset to None, as in torch
    assert get_printoptions() == {**DEFAULT_OPTS, "precision": 2, "linewidth": 50}
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == float("inf")
    set_printoptions(profile="short")
    assert get_printoptions() == {**DEFAULT_OPTS, "precision": 2, "edgeitems": 2}
    set_printoptions(profile="default")
    assert get_printoptions() == DEFAULT_OPTS
    with printoptions(precision=1):
        assert format_tensor(np.array([1.25], np.float32)) == "tensor([1.2])"
    assert get_printoptions() == DEFAULT_OPTS


def test_unsupported_dtype():
    with pytest.raises(TypeError):
        format_tensor(np.array(["a"]))


# --------------------------------------------------------------------------
# Oracle comparisons
# --------------------------------------------------------------------------

rng = np.random.default_rng(1234)


def _fixed_cases():
    f32, f64 = np.float32, np.float64
    cases = {
        # 0-d
        "0d-int-valued": np.array(6.0, f32),
        "0d-frac": np.array(3.14159, f32),
        "0d-neg": np.array(-2.5, f64),
        "0d-zero": np.array(0.0, f32),
        "0d-negzero": np.array(-0.0, f32),
        "0d-nan": np.array(np.nan, f32),
        "0d-inf": np.array(-np.inf, f64),
        "0d-tiny": np.array(1e-7, f32),
        "0d-huge": np.array(3e12, f64),
        "0d-int64": np.array(-42, np.int64),
        "0d-bool": np.array(True),
        # 1-d
        "1d-int-valued": np.array([1, 2, 3], f32),
        "1d-tenth": np.array([0.1, 0.2, 0.3], f32),
        "1d-tenth-f64": np.array([0.1, 0.2, 0.3], f64),
        "1d-neg": np.array([-1.5, 2.25, -3.125], f32),
        "1d-mixed-sign-int": np.array([-10, 5, 100], f32),
        "1d-negzero": np.array([-0.0, 0.0, 1.0], f32),
        "1d-negzero-frac": np.array([-0.0, 0.5], f32),
        "1d-all-zero": np.zeros(4, f32),
        "1d-nan-inf": np.array([np.nan, np.inf, -np.inf, 1.0], f32),
        "1d-nan-inf-frac": np.array([np.nan, np.inf, -np.inf, 1.5], f64),
        "1d-only-nonfinite": np.array([np.nan, np.inf, -np.inf], f32),
        "1d-sci-ratio": np.array([1.0, 1001.0], f32),
        "1d-no-sci-ratio": np.array([1.0, 1000.0], f32),
        "1d-sci-ratio-frac": np.array([0.5, 600.5], f32),
        "1d-sci-big": np.array([1.5e8, 2e8], f64),
        "1d-sci-big-int": np.array([1e9, 2e9], f64),
        "1d-sci-small": np.array([5e-5, 6e-5], f32),
        "1d-sci-nan": np.array([1e-5, np.nan, -np.inf, 0.0, -0.0], f32),
        "1d-sci-exp3": np.array([1e-200, 1e200], f64),
        "1d-sci-neg": np.array([-1e-8, 3.0, -4e6], f64),
        "1d-round-up": np.array([9.99996, 0.5], f32),
        "1d-round-up-sci": np.array([9.99996e-6, 1.0], f64),
        "1d-float32-max": np.array([np.finfo(f32).max, np.finfo(f32).tiny], f32),
        "1d-denormal": np.array([1e-45, 1.0], f32),
        "1d-float16": np.array([0.1, 2.5, -3.0], np.float16),
        "1d-int64": np.array([1, -22, 333, 0], np.int64),
        "1d-int64-big": np.array([2**62, -(2**63)], np.int64),
        "1d-int32": np.array([1, 2], np.int32),
        "1d-uint8": np.array([0, 255], np.uint8),
        "1d-bool": np.array([True, False, True]),
        "1d-bool-true": np.array([True, True]),
        "1d-wrap-f32": (rng.standard_normal(40) * 100).astype(f32),
        "1d-wrap-f64": rng.standard_normal(37) * 1e5,
        "1d-wrap-int": np.arange(-50, 50, dtype=np.int64) * 1234567,
        "1d-wrap-bool": rng.random(60) > 0.5,
        "1d-wrap-sci": (rng.standard_normal(30) * 10.0 ** rng.integers(-9, 9, 30)).astype(f32),
        "1d-exactly-1000": np.arange(1000, dtype=f32),
        "1d-1001": np.arange(1001, dtype=f32) / 3,
        "1d-large-int": np.arange(5000, dtype=np.int64),
        "1d-large-bool": rng.random(1500) > 0.5,
        "1d-large-nan-edge": np.concatenate([[np.nan], np.ones(2000), [-np.inf]]).astype(f32),
        "1d-large-hidden-sci": np.concatenate([np.ones(5), [1e-9] * 1000, np.ones(5)]),
        # 2-d
        "2d-int-valued": np.array([[4, 3], [2, 6]], f32),
        "2d-frac": rng.standard_normal((3, 4)).astype(f32),
        "2d-f64": rng.standard_normal((4, 3)),
        "2d-wide": rng.standard_normal((3, 30)).astype(f32),
        "2d-wide-sci": rng.standard_normal((2, 25)) * 1e-6,
        "2d-int64": rng.integers(-1000, 1000, (5, 7)),
        "2d-bool": rng.random((3, 3)) > 0.5,
        "2d-col": rng.standard_normal((6, 1)).astype(f32),
        "2d-row": rng.standard_normal((1, 6)).astype(f32),
        "2d-large": rng.standard_normal((50, 50)).astype(f32),
        "2d-large-f64": rng.standard_normal((1001, 1)),
        "2d-large-narrow": rng.standard_normal((4, 300)).astype(f32),
        "2d-large-rows": rng.standard_normal((300, 4)).astype(f32),
        "2d-large-int": np.arange(40000, dtype=np.int64).reshape(200, 200),
        # 3-d and up
        "3d": rng.standard_normal((2, 3, 4)).astype(f32),
        "3d-int": rng.integers(0, 10, (2, 2, 2)),
        "3d-wide": rng.standard_normal((2, 2, 20)),
        "3d-large": rng.standard_normal((10, 10, 11)).astype(f32),
        "4d": rng.standard_normal((2, 1, 2, 3)).astype(f32),
        "4d-large": rng.standard_normal((8, 8, 8, 8)).astype(f32),
        "5d-ones": np.ones((1, 1, 1, 1, 2), f32),
        # empty
        "empty-f32": np.array([], f32),
        "empty-f64": np.array([], f64),
        "empty-int": np.array([], np.int64),
        "empty-bool": np.array([], bool),
        "empty-int32": np.array([], np.int32),
        "empty-2d": np.zeros((0, 3), f32),
        "empty-2d-b": np.zeros((3, 0), f32),
        "empty-3d-int": np.zeros((2, 0, 1), np.int64),
        "empty-2d-f64": np.zeros((0, 0), f64),
    }
    return cases


FIXED = _fixed_cases()


@pytest.mark.parametrize("name", sorted(FIXED))
def test_matches_torch(torch, name):
    _check(torch, FIXED[name])


FLOAT_NAMES = sorted(k for k, v in FIXED.items() if v.dtype.kind == "f" and v.dtype != np.float16)


@pytest.mark.parametrize("grad", ["leaf", "mul", "clone"])
@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_matches_torch_with_grad(torch, name, grad):
    _check(torch, FIXED[name], grad)


@pytest.mark.parametrize(
    "arr",
    [np.array([19.0], np.float32), np.array(2.5, np.float64), np.ones((2, 3), np.float32)],
)
def test_add_backward(torch, arr):
    _check(torch, arr, "add")


def test_long_suffix_wraps(torch):
    # A last line close to the line width pushes the suffixes onto new lines.
    arr = np.arange(17, dtype=np.float64) + 0.5
    _check(torch, arr, "leaf")
    _check(torch, arr, "mul")
    for n in range(1, 30):
        _check(torch, np.arange(n, dtype=np.float64) * 1.25, "mul")


OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 0},
    {"edgeitems": 1, "threshold": 10},
    {"edgeitems": 0, "threshold": 10},
    {"edgeitems": 0},
    {"linewidth": 20},
    {"linewidth": 1},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 1},
    {"profile": "short"},
    {"profile": "full"},
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=lambda o: repr(o))
@pytest.mark.parametrize(
    "name",
    [
        "0d-frac",
        "0d-zero",
        "1d-tenth",
        "1d-nan-inf",
        "1d-sci-small",
        "1d-large-int",
        "1d-wrap-f32",
        "1d-wrap-bool",
        "2d-frac",
        "2d-large",
        "3d-large",
        "4d",
        "empty-2d",
        "1d-1001",
        "1d-int-valued",
    ],
)
def test_printoptions_match_torch(torch, name, opts):
    torch.set_printoptions(**opts)
    set_printoptions(**opts)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    _check(torch, FIXED[name])
    _check(torch, FIXED[name], "leaf" if FIXED[name].dtype.kind == "f" else None)


# --------------------------------------------------------------------------
# Property-based comparisons
# --------------------------------------------------------------------------

SPECIALS = [0.0, -0.0, np.nan, np.inf, -np.inf, 0.1, 1.0, -1.0, 0.5, 1e-4, 1e8, 1000.0]


@st.composite
def float_arrays(draw, max_side=6):
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, max_side), min_size=ndim, max_size=ndim)))
    n = int(np.prod(shape, dtype=np.int64))
    style = draw(st.sampled_from(["int", "scaled", "any", "special"]))
    if style == "int":
        vals = draw(st.lists(st.integers(-(10**9), 10**9), min_size=n, max_size=n))
        arr = np.array(vals, dtype=np.float64)
    elif style == "scaled":
        exp = draw(st.integers(-12, 12))
        spread = draw(st.integers(0, 6))
        mant = draw(st.lists(st.floats(-10, 10), min_size=n, max_size=n))
        exps = draw(st.lists(st.integers(-spread, spread), min_size=n, max_size=n))
        arr = np.array(mant, dtype=np.float64) * 10.0 ** (exp + np.array(exps, dtype=np.float64))
    elif style == "any":
        arr = np.array(
            draw(st.lists(st.floats(width=32), min_size=n, max_size=n)), dtype=np.float64
        )
    else:
        arr = np.array(
            draw(st.lists(st.sampled_from(SPECIALS), min_size=n, max_size=n)), dtype=np.float64
        )
    with np.errstate(over="ignore"):
        return arr.reshape(shape).astype(dtype)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arr=float_arrays(), grad=st.sampled_from([None, "leaf", "mul"]))
def test_random_floats_match_torch(torch, arr, grad):
    _check(torch, arr, grad)


@settings(max_examples=150, deadline=None)
@given(
    arr=hnp.arrays(
        dtype=st.sampled_from([np.dtype(np.int64), np.dtype(np.bool_), np.dtype(np.int32)]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
    )
)
def test_random_ints_and_bools_match_torch(torch, arr):
    _check(torch, arr)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arr=float_arrays(max_side=9),
    precision=st.integers(0, 8),
    threshold=st.integers(0, 60),
    edgeitems=st.integers(0, 4),
    linewidth=st.integers(1, 120),
    sci_mode=st.sampled_from([None, True, False]),
)
def test_random_printoptions_match_torch(
    torch, arr, precision, threshold, edgeitems, linewidth, sci_mode
):
    opts = {
        "precision": precision,
        "threshold": threshold,
        "edgeitems": edgeitems,
        "linewidth": linewidth,
        "sci_mode": sci_mode,
    }
    old_torch = torch._tensor_str.get_printoptions()
    old_ours = get_printoptions()
    torch.set_printoptions(**opts)
    set_printoptions(**opts)
    try:
        _check(torch, arr, "leaf")
    finally:
        torch.set_printoptions(**old_torch)
        set_printoptions(**old_ours)
