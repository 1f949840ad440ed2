"""Forward-mode AD (``gradcli.autograd.forward_ad``) beyond the op matrix.

Every op's tangent is checked against central finite differences in float64 by the
op-sample matrix's ``gradcheck`` (``op_matrix.finite_difference_check``: the tangents are
derived from the reverse rules, ``engine/forward.py``, so that is the check that the
derivation holds for every op), and against PyTorch's by its ``jvp``. Here: the tangent
differentiated in the primal (reverse over forward) for a share of the entries that
declare a domain, and the dual levels of threads. The public API and its errors against
PyTorch are in ``test_forward_ad_torch.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_op_table import SWEPT, _function, _inputs

import gradcli
import gradcli.autograd.forward_ad as fwad


def _tangents(xs, seed):
    rng = np.random.default_rng(seed)
    return [gradcli.tensor(rng.uniform(-1, 1, tuple(x.shape))) for x in xs]


def _first(out):
    return out[0] if isinstance(out, tuple) else out  # sort's values, not its indices


@pytest.mark.parametrize("entry", SWEPT[::4], ids=lambda e: e.name)
def test_tangent_is_differentiable_in_the_primal(entry):
    # d/dx of J(x) t, by reverse mode through the tangent, against differences of tangents.
    f, xs = _function(entry, _inputs(entry))
    xs = tuple(x.detach() for x in xs)
    ts = _tangents(xs, 7)
    leaves = [x.clone().requires_grad_() for x in xs]
    with fwad.dual_level():
        out = _first(f(*(fwad.make_dual(x, t) for x, t in zip(leaves, ts))))
        tangent = fwad.unpack_dual(out).tangent
    if not tangent.requires_grad:
        return  # J does not depend on x (a linear op): nothing to differentiate
    (g,) = gradcli.autograd.grad(tangent.sum(), leaves[0], allow_unused=True)
    g = np.zeros(xs[0].shape) if g is None else g._data

    def tangent_sum(x0):
        with fwad.dual_level():
            args = [fwad.make_dual(x, t) for x, t in zip((x0, *xs[1:]), ts)]
            return fwad.unpack_dual(_first(f(*args))).tangent.sum()._data

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
