"""The gradcheck sweep generated from the op table: every entry that declares the
domain of its inputs (``Op.domain``: one name per input, and a dict of keyword
arguments where the op needs some) passes ``gradcheck`` and ``gradgradcheck`` in
float64 on inputs drawn from it (``opinfo.DOMAINS``, which the op-sample matrix draws
from too), through its public function. Nothing here lists ops or domains: an entry
that gains a domain is swept.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.engine import ops
from gradcli.engine.opinfo import DOMAINS  # the domains the entries name

SWEPT = [entry for entry in ops.OPS.values() if entry.domain]


def _inputs(entry):
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    shape = (3, 3) if entry.kind == "linalg" else (2, 3)
    arrays = [DOMAINS[d](rng, shape) for d in entry.domain if isinstance(d, str)]
    return [
        gradcli.tensor(a) if a.dtype == bool else gradcli.tensor(a, requires_grad=True)
        for a in arrays
    ]


def _keywords(entry):
    return next((d for d in entry.domain if isinstance(d, dict)), {})


def _function(entry, inputs):
    """The entry's function of the inputs that require grad (masks held fixed)."""
    differentiable = [i for i, t in enumerate(inputs) if t.requires_grad]

    def f(*xs):
        args = list(inputs)
        for i, x in zip(differentiable, xs):
            args[i] = x
        return entry.call(*args, **_keywords(entry))

    return f, tuple(inputs[i] for i in differentiable)


def test_the_sweep_covers_the_elementwise_and_binary_entries():
    swept = {e.name for e in SWEPT}
    for entry in ops.OPS.values():
        if entry.kind in ("elementwise", "binary") and entry.differentiable and entry.function:
            assert entry.name in swept, f"{entry.name} declares no domain"
    assert all(d in DOMAINS for e in SWEPT for d in e.domain if isinstance(d, str))


@pytest.mark.parametrize("entry", SWEPT, ids=lambda e: e.name)
def test_gradcheck_of_each_entry(entry):
    f, xs = _function(entry, _inputs(entry))
    assert gradcheck(f, xs, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(f, xs, eps=1e-6, atol=1e-5, rtol=1e-3)
