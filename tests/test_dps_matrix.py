"""The --dps matrix: every entry with a multiprecision forward (``mp``), computed at N
digits on the engine, against the same call at 2N digits and mpmath.

For each entry, its first sample with floating-point inputs (every such sample with
``GRADCLI_MATRIX=all``): the value at N digits agrees with float64's to 1e-9 (the
multiprecision forward is the same function) and with the value at 2N digits to N - 2
digits; the gradient of ``sum(out * w)`` by the entry's own rules at N digits agrees to
N - 2 digits with ``mpmath.diff`` of that sum at 2N digits, which owes nothing to the rules.
"""

from __future__ import annotations

import os

import mpmath
import numpy as np
import pytest

from gradcli.core.precision import GUARD
from gradcli.engine import opinfo, opsamples
from gradcli.engine.backward import grad
from gradcli.engine.ops import INTERNAL, OPS
from gradcli.engine.tensor import Tensor
from gradcli.engine.working_precision import working_precision
from gradcli.errors import NotImplementedByGradcli

N = 20
#: The working precision of --dps N's first step (``core/precision.GUARD``).
WORKING = N + GUARD
WHOLE = os.environ.get("GRADCLI_MATRIX") == "all"
ENTRIES = {**OPS, **INTERNAL}
WITH_MP = sorted(name for name, e in ENTRIES.items() if e.mp is not None)


def _floats(v) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _mpf_array(v) -> np.ndarray:
    out = np.empty(v.shape, dtype=object)
    out.reshape(-1)[:] = [mpmath.mpf(x) for x in v.reshape(-1).tolist()]
    return out


def _call(built, values, requires_grad):
    """The entry's call on ``values`` (one per input of the sample), and its leaves."""
    leaves = []

    def wrap(v, i):
        if isinstance(v, opsamples.Tensors):
            return [wrap(np.asarray(x), i) for x in v.shapes]
        if i is not None and isinstance(v, np.ndarray) and v.dtype.kind in "fO":
            t = Tensor._make(
                values[id(v)].copy() if id(v) in values else v.copy(), None, requires_grad
            )
            leaves.append(t) if requires_grad else None
            return t
        return Tensor._make(v) if isinstance(v, np.ndarray) else v

    args, kwargs = built.arguments(wrap)
    out = built.entry.call(*args, **kwargs)
    return (out[0] if isinstance(out, tuple) else out), leaves


def _float_inputs(built) -> list:
    found = []
    for v in built.values:
        if isinstance(v, opsamples.Tensors):
            found.extend(np.asarray(x) for x in v.shapes)
        elif _floats(v):
            found.append(v)
    return found


def _suitable(built) -> bool:
    if not _float_inputs(built) or "float32" in str(built.sample.params.get("dtype")):
        return False  # a float32 result has float32's rounding; --dps computes at its own
    try:
        out, _ = _call(built, {}, False)
    except Exception:  # a sample the float64 path refuses is no sample of this matrix
        return False
    return type(out) is Tensor and out._data.dtype.kind in "fbi"


def _cases():
    for name in WITH_MP:
        chosen = [b for b in opinfo.samples_of(ENTRIES[name]) if not b.sample.special]
        chosen = [b for b in chosen if _suitable(b)]
        for built in chosen if WHOLE else chosen[:1]:
            yield pytest.param(built, id=f"{name}-{built.name}")


def _at(built, dps, requires_grad):
    """The call at ``dps`` digits: (output array, leaves, the mpf inputs by position)."""
    inputs = _float_inputs(built)
    with working_precision(dps):
        values = {id(v): _mpf_array(v) for v in inputs}
        out, leaves = _call(built, values, requires_grad)
    return out, leaves, [values[id(v)] for v in inputs]


def _agree(got, want, digits, what, nan_unknown=False):
    got = np.asarray(got, dtype=object).reshape(-1).tolist()
    want = np.asarray(want, dtype=object).reshape(-1).tolist()
    finite = [abs(w) for w in want if mpmath.isfinite(w)]
    # Relative to the largest entry, or to 1 (the samples' scale): a result that is 0
    # keeps the rounding of its terms, of that scale.
    scale = max([*finite, mpmath.mpf(1)])
    for g, w in zip(got, want):
        if w != w and nan_unknown:
            continue  # mpmath.diff of a function that is nan about the point
        if not mpmath.isfinite(w):
            assert g == w or (g != g and w != w), f"{what}: {g} where {w}"
            continue
        g = g.item() if isinstance(g, np.generic) else g  # NumPy's int 0 of a rule
        error = abs(mpmath.mpf(g) - w) / scale
        assert error <= mpmath.mpf(10) ** -digits, f"{what}: {g} vs {w} (relative {error})"


@pytest.mark.parametrize("built", list(_cases()))
def test_dps_matrix(built):
    try:
        _check(built)
    except NotImplementedByGradcli as error:  # zeta's derivative for x, as PyTorch's
        pytest.skip(str(error))


def _check(built):
    entry = built.entry
    reference, _ = _call(built, {}, False)
    differentiable = entry.differentiable and not entry.name.endswith("_")
    out, leaves, _ = _at(built, WORKING, differentiable)
    data = np.asarray(out._data)
    assert data.dtype.kind in "Obi", f"{entry.name} left mpmath: {data.dtype}"
    if data.dtype.kind in "bi":  # a comparison, an index
        assert np.array_equal(data, reference._data)
        return
    as_float = np.array([float(x) for x in data.reshape(-1).tolist()]).reshape(data.shape)
    # To float64's own rounding, of the array's scale (float64's ndtr(-10) cancels to 0).
    scale = np.max(np.abs(reference._data), initial=0.0, where=np.isfinite(reference._data))
    np.testing.assert_allclose(as_float, reference._data, rtol=1e-9, atol=1e-9 * scale + 1e-300,
                               equal_nan=True)  # fmt: skip

    with mpmath.workdps(2 * N):
        wide, _, wide_inputs = _at(built, 2 * N, False)
        _agree(data, wide._data, N - 2, f"{entry.name} value")
    if not differentiable or not out.requires_grad:
        return
    weights = np.empty(data.shape, dtype=object)
    with working_precision(WORKING):
        weights.reshape(-1)[:] = [mpmath.mpf(k + 2) / 7 for k in range(data.size)]
        grads = grad(out, leaves, Tensor._make(weights), allow_unused=True)
    with working_precision(2 * N):
        for g, x in zip(grads, wide_inputs):
            want = _numerical_gradient(built, wide_inputs, x, weights)
            got = np.zeros(x.shape, dtype=object) if g is None else g._data
            _agree(got, want, N - 2, f"{entry.name} gradient", nan_unknown=True)


def _diff(f, x):
    """mpmath.diff, its step relative to x (ndtri at 1e-300 has no neighbour 1e-20 away)."""
    return mpmath.diff(f, x, h=abs(x) * mpmath.mpf(10) ** -N) if x else mpmath.diff(f, x)


def _numerical_gradient(built, inputs, x, weights):
    """d sum(out * w)/dx, each entry by mpmath.diff of the call at the working precision."""
    inputs_by_id = {id(v): v for v in _float_inputs(built)}
    originals = dict(zip(inputs_by_id, inputs))
    key = next(k for k, v in originals.items() if v is x)
    flat = x.reshape(-1)
    found = np.empty(x.shape, dtype=object)

    def total(t, j):
        moved = flat.copy()
        moved[j] = t
        values = {**originals, key: moved.reshape(x.shape)}
        out, _ = _call(built, values, False)
        return np.sum(np.asarray(out._data, dtype=object) * weights)

    for j in range(flat.size):
        found.reshape(-1)[j] = _diff(lambda t, j=j: total(t, j), flat[j])
    return found


def test_every_entry_with_a_multiprecision_forward_has_a_case():
    covered = {p.values[0].entry.name for p in _cases()}
    without = set(WITH_MP) - covered
    # The constructors without a floating-point input, setitem (an assignment, which gives
    # no result), the queries that give a Python value and to_dtype (its one sample is a
    # float32's): --dps's own tests run them in programs.
    queries = {"numel", "len", "is_contiguous", "is_tensor"}
    assert without <= {"zeros", "ones", "eye", "tensor", "setitem", "to_dtype", *queries}, without


def _second_order_cases():
    for param in _cases():
        entry = param.values[0].entry
        if entry.differentiable and not entry.name.endswith("_"):
            yield param


def _weights(shape, offset):
    weights = np.empty(shape, dtype=object)
    weights.reshape(-1)[:] = [mpmath.mpf(k + offset) / 7 for k in range(weights.size)]
    return Tensor._make(weights)


def _first_gradient(built, values, requires_grad=True):
    """The gradient of sum(out * w) for the sample's first input, by the entry's rules,
    on the graph; and the leaves."""
    out, leaves = _call(built, values, requires_grad)
    if not out.requires_grad:
        return None, leaves
    weights = _weights(np.shape(out._data), 2)
    return grad(out, leaves[:1], weights, create_graph=True, allow_unused=True)[0], leaves


@pytest.mark.parametrize("built", list(_second_order_cases()))
def test_dps_matrix_second_order(built):
    """d<g, v>/dx for g the gradient of the first input, by double backward at N digits,
    against mpmath.diff at 2N digits of <g, v> (g by the rules the test above checks)."""
    try:
        _check_second_order(built)
    except NotImplementedByGradcli as error:
        pytest.skip(str(error))


def _check_second_order(built):
    inputs = _float_inputs(built)
    with working_precision(WORKING):
        values = {id(v): _mpf_array(v) for v in inputs}
        g, leaves = _first_gradient(built, values)
        if g is None or not g.requires_grad:
            return  # linear in its first input: no second derivative to check
        v = _weights(np.shape(g._data), 3)
        got = grad(g, leaves, v, allow_unused=True)
    with working_precision(2 * N):
        wide = {id(x): _mpf_array(x) for x in inputs}
        for x, found in zip(inputs, got):
            flat = wide[id(x)].reshape(-1)
            want = np.empty(x.shape, dtype=object)

            def along(t, j, x=x, flat=flat):
                moved = flat.copy()
                moved[j] = t
                g, _ = _first_gradient(built, {**wide, id(x): moved.reshape(x.shape)})
                return np.sum(np.asarray(g._data, dtype=object) * v._data)

            for j in range(flat.size):
                want.reshape(-1)[j] = _diff(lambda t, j=j: along(t, j), flat[j])
            have = np.zeros(x.shape, dtype=object) if found is None else found._data
            _agree(have, want, N - 2, f"{built.entry.name} second derivative", nan_unknown=True)
