"""Forward-mode AD (``gradcli.autograd.forward_ad``): every op's tangent.

Every case of the op table's cases (``test_engine_ops.CASES``, which cover every
differentiable op and internal op: a test there fails when one has none) and
every entry that declares a domain has its tangent checked against central
finite differences in float64: the tangent of ``f(x + h t)`` at h = 0 is
``(f(x + h t) - f(x - h t)) / 2h``. The tangents are derived from the reverse
rules (``engine/forward.py``), so this is the check that the derivation holds
for every op. The public API and its errors against PyTorch are in
``test_forward_ad_torch.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_ops import CASES
from test_op_table import SWEPT, _function, _inputs

import gradcli
import gradcli.autograd.forward_ad as fwad
from gradcli.engine import ops


def _tangents(xs, seed):
    rng = np.random.default_rng(seed)
    return [gradcli.tensor(rng.uniform(-1, 1, tuple(x.shape))) for x in xs]


def _finite_difference(f, xs, ts, h=1e-6):
    def at(sign):
        with gradcli.no_grad():
            return f(*(gradcli.tensor(x._data + sign * h * t._data) for x, t in zip(xs, ts)))

    return (at(1)._data - at(-1)._data) / (2 * h)


def _outputs(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_tangent_of_each_case_matches_central_differences(case):
    xs = tuple(gradcli.tensor(a) for a in case.arrays())
    ts = _tangents(xs, len(case.name))

    def f(*args):
        return case.fn(gradcli, *args)

    with fwad.dual_level():
        outs = _outputs(f(*(fwad.make_dual(x, t) for x, t in zip(xs, ts))))
        tangents = [fwad.unpack_dual(o).tangent for o in outs]
    h = case.eps  # the case's own step and tolerances, as its gradcheck
    with gradcli.no_grad():
        up = _outputs(f(*(gradcli.tensor(x._data + h * t._data) for x, t in zip(xs, ts))))
        down = _outputs(f(*(gradcli.tensor(x._data - h * t._data) for x, t in zip(xs, ts))))
    for tangent, a, b in zip(tangents, up, down):
        assert tangent is not None, case.name
        expected = (a._data - b._data) / (2 * h)
        assert tangent.dtype == a.dtype
        np.testing.assert_allclose(tangent._data, expected, rtol=case.rtol, atol=case.atol)


def test_every_differentiable_entry_with_a_domain_is_swept():
    swept = {e.name for e in SWEPT}
    for entry in ops.OPS.values():
        if entry.kind in ("elementwise", "binary") and entry.differentiable and entry.function:
            assert entry.name in swept


@pytest.mark.parametrize("entry", SWEPT, ids=lambda e: e.name)
def test_tangent_of_each_entry_matches_central_differences(entry):
    f, xs = _function(entry, _inputs(entry))
    xs = tuple(x.detach() for x in xs)
    ts = _tangents(xs, len(entry.name))
    with fwad.dual_level():
        out = f(*(fwad.make_dual(x, t) for x, t in zip(xs, ts)))
        primal, tangent = fwad.unpack_dual(out)
    expected = _finite_difference(f, xs, ts)
    assert tangent is not None, entry.name
    assert tangent.shape == primal.shape
    np.testing.assert_allclose(tangent._data, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("entry", SWEPT[::4], ids=lambda e: e.name)
def test_tangent_is_differentiable_in_the_primal(entry):
    # d/dx of J(x) t, by reverse mode through the tangent, against differences of tangents.
    f, xs = _function(entry, _inputs(entry))
    xs = tuple(x.detach() for x in xs)
    ts = _tangents(xs, 7)
    leaves = [x.clone().requires_grad_() for x in xs]
    with fwad.dual_level():
        out = f(*(fwad.make_dual(x, t) for x, t in zip(leaves, ts)))
        tangent = fwad.unpack_dual(out).tangent
    if not tangent.requires_grad:
        return  # J does not depend on x (a linear op): nothing to differentiate
    (g,) = gradcli.autograd.grad(tangent.sum(), leaves[0], allow_unused=True)
    g = np.zeros(xs[0].shape) if g is None else g._data

    def tangent_sum(x0):
        with fwad.dual_level():
            args = [fwad.make_dual(x, t) for x, t in zip((x0, *xs[1:]), ts)]
            return fwad.unpack_dual(f(*args)).tangent.sum()._data

    h = 1e-6
    e = np.zeros(xs[0].shape)
    numeric = np.zeros(xs[0].shape)
    for i in np.ndindex(xs[0].shape):
        e[i] = h
        up = tangent_sum(gradcli.tensor(xs[0]._data + e))
        down = tangent_sum(gradcli.tensor(xs[0]._data - e))
        numeric[i] = (up - down) / (2 * h)
        e[i] = 0
    np.testing.assert_allclose(g, numeric, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", [c for c in CASES if c.gradgrad], ids=lambda c: c.name)
def test_forward_over_reverse_hessian_of_each_case(case):
    # func.hessian is jacfwd(jacrev(f)): tangents through every op's batched reverse rules.
    xs = [gradcli.tensor(a) for a in case.arrays()]

    def f(x0):
        out = case.fn(gradcli, x0, *xs[1:])
        return sum((o * o).sum() for o in _outputs(out))

    forward_over_reverse = gradcli.func.hessian(f)(xs[0])
    reverse_over_reverse = gradcli.autograd.functional.hessian(f, xs[0])
    np.testing.assert_allclose(
        forward_over_reverse._data, reverse_over_reverse._data, rtol=1e-6, atol=1e-8
    )


def test_a_dual_level_in_one_thread_gives_no_tangents_in_another():
    # sin(x) at x = 0.5 along tangent 1: cos(0.5); the other thread, outside any level,
    # computes plain values while this one is inside its level.
    import threading

    inside, done = threading.Event(), threading.Event()
    found = {}

    def other():
        inside.wait()
        y = gradcli.sin(gradcli.tensor(0.5, dtype=gradcli.float64))
        found["other"] = fwad.unpack_dual(y).tangent
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with fwad.dual_level():
        x = fwad.make_dual(
            gradcli.tensor(0.5, dtype=gradcli.float64), gradcli.tensor(1.0, dtype=gradcli.float64)
        )
        inside.set()
        done.wait()
        tangent = fwad.unpack_dual(gradcli.sin(x)).tangent
    thread.join()
    assert found["other"] is None
    assert tangent.item() == pytest.approx(np.cos(0.5), abs=1e-15)
    with fwad.dual_level():  # levels entered and left: the count is back, a new one works
        y = gradcli.sin(
            fwad.make_dual(
                gradcli.tensor(0.5, dtype=gradcli.float64),
                gradcli.tensor(2.0, dtype=gradcli.float64),
            )
        )
        assert fwad.unpack_dual(y).tangent.item() == pytest.approx(2 * np.cos(0.5), abs=1e-15)
