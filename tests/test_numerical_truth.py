"""The engine's numbers checked against an independent source: PyTorch 2.13 in float64, a
hand derivation, mpmath or central differences (never gradcli itself).

Each test names the case it guards: a 0-d tensor's dim, an infinite operand, a kink's
convention in forward mode, a series near a removable singularity.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gradcli
from gradcli.autograd import functional as gf

torch = pytest.importorskip("torch", reason="the expected values come from PyTorch 2.13")
tf = torch.autograd.functional

nan, inf = math.nan, math.inf


def same(a, b, rtol=1e-12):
    """Equal numbers (as float64 arrays), nan where nan; -0 and 0 equal."""
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol, atol=0)


def both(f, *values, kind="hessian"):
    """``kind`` (jacobian or hessian) of ``f(lib, *inputs)`` by gradcli and by PyTorch."""
    g = [gradcli.tensor(v, dtype=gradcli.float64) for v in values]
    t = [torch.tensor(v, dtype=torch.float64) for v in values]
    mine = getattr(gf, kind)(lambda *xs: f(gradcli, *xs), tuple(g))
    theirs = getattr(tf, kind)(lambda *xs: f(torch, *xs), tuple(t))
    return mine, theirs


def flat(nested):
    """The numbers of a nested tuple of tensors, in order, as one float64 array."""
    if isinstance(nested, (tuple, list)):
        return np.concatenate([flat(n) for n in nested]) if nested else np.zeros(0)
    return np.asarray(nested.detach().numpy() if hasattr(nested, "detach") else nested).ravel()


# ----- a 0-d tensor along its dim: the rules must not sum g's batch dims -----

ZERO_D_PROGRAMS = {
    "softmax of a 0-d entry": (lambda L, x: L.stack([L.softmax(x[0], -1), x[1]]), "jacobian"),
    "log_softmax of a 0-d entry": (
        lambda L, x: L.stack([L.log_softmax(x[0], 0), x[1]]),
        "jacobian",
    ),
    "softmax of a sum": (lambda L, q: L.softmax(L.sum(q), 0), "hessian"),
    "log_softmax of a square": (lambda L, q: L.log_softmax(q[0] * q[0], 0), "hessian"),
    "prod of a 0-d entry": (lambda L, q: L.prod(q[1] * 2), "hessian"),
    "prod of a 0-d sum": (lambda L, q: L.prod(L.sum(q * q)), "hessian"),
    "prod of a 0-d sum along dim 0": (lambda L, q: L.prod(L.sum(q * q), 0), "hessian"),
}


@pytest.mark.parametrize("case", sorted(ZERO_D_PROGRAMS))
def test_a_0d_softmax_or_prod_differentiates_as_pytorch(case):
    f, kind = ZERO_D_PROGRAMS[case]
    mine, theirs = both(f, [1.0, 2.0, 3.0], kind=kind)
    same(flat(mine), flat(theirs))


def test_the_hessian_of_softmax_of_a_sum_is_zero_on_the_command_line(gradcli_json):
    out = gradcli_json("hessian", "softmax(sum(q), 0)", "--q", "1,2")
    assert np.asarray(out["hessian"]["q"]["q"], float).tolist() == [[0, 0], [0, 0]]
